import { walkPageTour } from '../helpers/page-tour-walk.ts';

// The page tour on a phone in French, then the hosted pages in German and Spanish; the desktop in
// English (and Italian, Dutch) is page-tour-desktop-en.test.ts (docs/testing.md#the-page-tour).
walkPageTour('phone', 'fr', ['de', 'es']);
