{ "components": [ { "id": "hud2", "type": "gui", "gui": "/main/spawned.gui" } ] }
