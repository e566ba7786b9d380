// FhirBlocksSQLite: see the module's other files.
