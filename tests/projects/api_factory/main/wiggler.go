{ "components": [ { "id": "model", "type": "model", "mesh": "/models/wiggler.glb", "default_animation": "wiggle" } ] }
