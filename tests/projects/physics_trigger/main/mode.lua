-- The run's dimension and physics.contact_impulse_limit (the test writes them).
return { two_d = false, impulse_limit = 0 }
