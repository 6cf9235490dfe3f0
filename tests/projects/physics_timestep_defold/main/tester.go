components {
  id: "script"
  component: "/main/timestep.script"
}
