"""The search index: tokenizer, lunr.js index, its transport to the browser, and the state a rebuild reuses."""
