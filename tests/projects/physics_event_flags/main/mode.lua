-- Whether the run hears the world through physics.set_event_listener (the test writes it).
return { listener = false }
