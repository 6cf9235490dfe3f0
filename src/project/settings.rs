//! `project.json` (filled in by the project-loading work).
