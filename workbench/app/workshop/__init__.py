"""Parts of the Workshop pane (``workbench.app.workshop_pane.WorkshopPane``): ``render`` (colours,
risk banner, diff, findings tree), ``queue`` (the proposals table model), ``preview`` (the
listing preview tab)."""
