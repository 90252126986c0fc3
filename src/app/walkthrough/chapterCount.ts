/**
 * How many walkthrough chapters there are, kept apart from the chapter texts so that the URL parser
 * can validate `ch` without loading them. A unit test checks it against `CHAPTERS.length`.
 */
export const CHAPTER_COUNT = 10;
