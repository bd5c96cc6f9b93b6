"""Pages: the plan of pages, the plain data each page shows, and what a rebuild plans again."""
