// FhirBlocksStoreTests
