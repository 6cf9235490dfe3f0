//! Collections and game-object files (filled in by the project-loading work).
