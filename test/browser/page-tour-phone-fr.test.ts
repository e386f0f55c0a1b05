import { walkPageTour } from '../helpers/page-tour-walk.ts';

// The page tour on a phone in French; the desktop in English is page-tour-desktop-en.test.ts
// (docs/testing.md#the-page-tour).
walkPageTour('phone', 'fr');
