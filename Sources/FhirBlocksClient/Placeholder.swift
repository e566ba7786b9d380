// FhirBlocksClient: see the module's other files.
