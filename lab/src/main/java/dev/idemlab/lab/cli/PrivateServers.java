package dev.idemlab.lab.cli;

import dev.idemlab.lab.infra.Origin;
import dev.idemlab.lab.infra.ProvisioningException;
import dev.idemlab.lab.infra.ProvisioningOptions;
import dev.idemlab.lab.infra.StoreBackend;
import dev.idemlab.lab.infra.StoreBackends;

/**
 * The lab's own private server of a store, for the commands that read a server's own counters or
 * count its rows ({@code lab cost}, {@code lab sweep}): another client's keys or rows must not be
 * counted, so a server given by URL is refused.
 */
final class PrivateServers {

    private PrivateServers() { }

    /**
     * @param why what the command does there, for the refusal: "lab cost measures on the lab's own private
     *     servers only (it reads the server's own counters)"
     * @throws CommandFailure when no private server could be had
     * @throws UsageException when the environment names a server by URL
     */
    static StoreBackend open(String name, String why) {
        StoreBackend backend;
        try {
            backend = StoreBackends.open(name, ProvisioningOptions.defaults());
        } catch (ProvisioningException unavailable) {
            throw new CommandFailure(name + " could not be had: " + unavailable.getMessage());
        }
        if (backend.server().origin() == Origin.URL) {
            backend.close();
            throw new UsageException(why + ": unset " + (name.equals("redis") ? ProvisioningOptions.REDIS_URL_ENV
                    : ProvisioningOptions.PG_URL_ENV));
        }
        return backend;
    }
}
