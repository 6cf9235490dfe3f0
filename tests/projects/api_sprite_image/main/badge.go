{ "components": [ { "id": "sprite", "type": "sprite", "tile_set": "/main/other.atlas", "default_animation": "jump",
  "material": "/main/invert.material" } ] }
