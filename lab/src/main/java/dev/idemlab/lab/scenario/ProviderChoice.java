package dev.idemlab.lab.scenario;

/** Where a scenario's callers reach the counting provider. */
public enum ProviderChoice {
    /** The provider object in this JVM: the post's setup. */
    IN_PROCESS,
    /** The same provider behind its HTTP service on 127.0.0.1: POST /charges, GET /ledger. */
    HTTP
}
