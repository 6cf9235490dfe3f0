{ "components": [] }
