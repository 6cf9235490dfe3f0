{ "components": [
  { "id": "script", "type": "script", "script": "/main/mob.script" },
  { "id": "model", "type": "model", "mesh": "/models/wiggler.glb", "default_animation": "wiggle" } ] }
