"""Releases: the archive of released graph versions, making a release, diffs and history."""
