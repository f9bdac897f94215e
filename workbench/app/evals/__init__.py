"""Parts of the Evals pane (``workbench.app.evals_pane.EvalsPane``): ``controls``, ``queries`` (the
query-set editor), ``results`` (table, summary, history), ``chart``; batch evals (``batch``,
``panebatch``), the collection window (``collection``) and its heat-map (``matrix``)."""
