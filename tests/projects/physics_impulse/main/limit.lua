-- The run's physics.contact_impulse_limit (the test writes it with project.json).
return 0
