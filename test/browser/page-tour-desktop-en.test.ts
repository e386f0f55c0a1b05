import { walkPageTour } from '../helpers/page-tour-walk.ts';

// The page tour on a desktop in English; the phone in French is page-tour-phone-fr.test.ts
// (docs/testing.md#the-page-tour).
walkPageTour('desktop', 'en');
