// FhirBlocksPostgres: see the module's other files.
