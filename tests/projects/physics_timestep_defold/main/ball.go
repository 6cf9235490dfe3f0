components {
  id: "co"
  component: "/main/ball.collisionobject"
}
