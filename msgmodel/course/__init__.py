"""The course: everything only the notebooks and their tests use, built on the core.

``display``     static HTML of a conversation (cards, tool-pair badges, ``show``), ``outline``, ``event_line``
``widgets``     the chapters' ipywidgets (ConversationView, CompactionExplorer, ...)
``teaching``    helpers the chapters call (``side_by_side``, ``type_check``, ``live_api_agreement``, ``core_route``)
``live_api``    the validator beside the live API's public captures (``msgmodel/data/live_api_errors.json``)
``route``       the core route through the series, measured on the built notebooks (careful reading model)
``sessions``    the sessions the chapters replay (prompts, the scripted debugging session, its probes)
``options``     ways to write the model in Python, as scratch modules chapters 06 and 07 run and type-check
``properties``  the Hypothesis strategy of chapter 05's live property
``knowledge``   the scanner that finds block knowledge copied outside the model
``synth``       synthetic sessions of any length, for measurements
``exercises``   the exercises' checkers and hints (the reference solutions are the teacher's answer key)
``i18n``        the language of the course's outputs: gettext domain ``msgmodel_course`` (``use("zh_CN")``)
``legacy``      the exhibit: the any-typed code of steps 29–30, kept to be studied (``legacy.harness`` runs it)

Nothing in the core (``msgmodel.core``) or the local API (``msgmodel.api``) imports this layer.
"""
