"""Readers of the languages other programs embed: what a sed script or an awk program runs
and writes, read once for the read-only judge, the danger checks and payload extraction."""
