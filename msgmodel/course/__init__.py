"""The course: everything only the notebooks and their tests use, built on the core.

``display``     static HTML of a conversation (cards, tool-pair badges, ``show``)
``widgets``     the chapters' ipywidgets (ConversationView, CompactionExplorer, ...)
``teaching``    helpers the chapters call (``side_by_side``, ``type_check``, ``live_api_agreement``, ``core_route``)
``live_api``    the validator beside the live API's public captures (``msgmodel/data/live_api_errors.json``)
``route``       the core route through the series, measured on ``notebooks/src``
``knowledge``   the scanner that finds block knowledge copied outside the model
``synth``       synthetic sessions of any length, for measurements
``exercises``   the exercises' checkers and hints (the reference solutions are the teacher's answer key)
``legacy``      the exhibit: the any-typed code of steps 29–30, kept to be studied

Nothing in the core (``msgmodel.core``) or the local API (``msgmodel.api``) imports this layer.
"""
