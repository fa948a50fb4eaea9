not: bindings
