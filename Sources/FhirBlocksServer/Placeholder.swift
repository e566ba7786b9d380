// FhirBlocksServer: see the module's other files.
