"""CP-SAT and SAT formulations: build(instance, **options) -> model; decode -> solution."""
