// Builds the dashboard's browser assets into dist/dashboard/assets (owned by the dashboard work).
