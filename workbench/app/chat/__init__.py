"""Parts of the Chat pane (``workbench.app.chat_pane.ChatPane``): ``widgets`` (a tool-call row, a
proposal card), ``connection`` (the connection form and the API key), ``transcript`` (the
transcript and the trace tree)."""
