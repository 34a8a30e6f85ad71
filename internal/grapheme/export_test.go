package grapheme

// UnicodeVersion is the version of the property table, for the external
// tests.
const UnicodeVersion = unicodeVersion
