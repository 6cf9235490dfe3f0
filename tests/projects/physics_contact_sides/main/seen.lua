-- What each object of the run was told, by its id (shared by both scripts).
return {}
