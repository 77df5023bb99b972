"""answer: `gitgarden ask` — a question answered from the garden, every sentence cited down to the
journal lines it rests on and checked by code, or "Not in the garden".

What the garden holds is gathered as notes (`notes`: a page's sentences traced to their journal
lines, small mode's dated bullets, journal lines), found through the search index, the links
between pages and the map's Open section (`retrieve`), and bounded to what the model's context
and pace allow. The model answers in the reply format of its mode (`prompts`): in small mode it
picks the notes that answer and code composes the answer from them word for word; in full mode it
writes sentences citing notes. Code then judges every sentence as a pass's written prose is judged
(rule 11) and whether the answer speaks to the question at all, gives the newest value where a
later line corrected one (`check`, `compose`), and abstains when nothing is left (`asking`).

May import search, model, guard, history, project, config, store, repo, wiki and errors. Imported
by services (the faces call `services.ask`).
"""
