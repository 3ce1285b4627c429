package io.kaas.storage;

class MemoryStorageEngineContractTest extends StorageEngineContract {
    @Override
    StorageEngine newEngine() {
        return new MemoryStorageEngine();
    }
}
