"""The page views: what a record page and a node page show, and what citation tools read."""
