-- The run's dimension and whether it hears the world through physics.set_event_listener (the
-- test writes it).
return { two_d = false, listener = false }
