-- The messages each object's script got, by object and message: shared by the scripts.
return {}
