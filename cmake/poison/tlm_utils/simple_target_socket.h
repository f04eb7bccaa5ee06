#error "This target is a pure layer (see DESIGN.md): it must not include SystemC/TLM headers."
