"""The site model: papers, venues, tracks and URLs; authors, related papers, BibTeX keys and notes over them."""
