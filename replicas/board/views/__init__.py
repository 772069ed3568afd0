"""Pages of the issue board, one module per area: sign-in, the board, backlog and sprints, reports,
a work item and its actions, search with saved filters.

Every page works without JavaScript (forms and links); board.js adds drag and drop, the mention
picker and keyboard shortcuts on top, posting to the same endpoints and asking for JSON.
"""
