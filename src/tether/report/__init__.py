"""Reports of replayed sessions people can look at."""
