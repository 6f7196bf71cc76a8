"""Every Eval Ever (github.com/evaleval/every_eval_ever): one JSON file is one evaluation
of one model by one source, holding its results. :mod:`.checks` reads and checks a file,
:mod:`.schema` is its JSON Schema, :mod:`.identity` the rules that name its nodes."""
