{ "components": [
  { "id": "co", "type": "collisionobject", "collision_type": "dynamic", "group": "box", "mask": ["world", "box"],
    "mass": 1, "shapes": [ { "id": "cube", "shape_type": "box", "data": [0.5, 0.5, 0.5] },
                           { "id": "ball", "shape_type": "sphere", "data": [0.3], "position": [0, 1, 0] } ] }
] }
