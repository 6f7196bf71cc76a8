"""What readers see of many nodes and of one: the read models, knowing nothing of Flask.

The catalogue (search, facets, paging), the leaderboards, disagreements and model pages
(:mod:`.boards`), the timeline readers follow (:mod:`.timeline`), and what a record's,
a quoted sentence's or any other node's page shows, read from its closure. The web app
renders them as pages; ``kg board`` and ``kg model`` print them.
"""
