// FhirBlocksServerTests
