{ "components": [
  { "id": "script", "type": "script", "script": "/main/ball.script" },
  { "id": "co", "type": "collisionobject", "collision_type": "dynamic", "group": "ball", "mask": ["world"],
    "restitution": 0, "shapes": [ { "shape_type": "sphere", "data": [0.5] } ] } ] }
