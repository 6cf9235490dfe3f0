{ "components": [
  { "id": "co", "type": "collisionobject", "collision_type": "kinematic", "group": "hitbox", "mask": ["target"],
    "shapes": [ { "shape_type": "sphere", "data": [0.1] } ] } ] }
