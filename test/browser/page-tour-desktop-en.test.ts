import { walkPageTour } from '../helpers/page-tour-walk.ts';

// The page tour on a desktop in English, then the hosted pages in Italian and Dutch; the phone in
// French (and German, Spanish) is page-tour-phone-fr.test.ts (docs/testing.md#the-page-tour).
walkPageTour('desktop', 'en', ['it', 'nl']);
