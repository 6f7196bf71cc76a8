"""What readers see of many nodes and of one: the read models, knowing nothing of Flask.

The catalogue (search, facets, paging), the leaderboards, disagreements and model pages
(:mod:`.boards`), and what a record's, a quoted sentence's or any other node's page shows,
read from its closure. The web app renders them as pages; ``kg board`` and ``kg model``
print them. (The timeline the feeds read is written beside the index:
:mod:`kg.store.index.timeline`.)
"""
