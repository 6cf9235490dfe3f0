components {
  id: "model"
  component: "/main/hero.model"
}
components {
  id: "script"
  component: "/main/hero.script"
}
