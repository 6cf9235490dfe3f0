{
 "components": [
  {
   "id": "co",
   "type": "collisionobject",
   "collision_type": "dynamic",
   "restitution": 0,
   "mass": 1,
   "shapes": [
    {
     "shape_type": "sphere",
     "data": [
      0.5
     ]
    }
   ]
  }
 ]
}
