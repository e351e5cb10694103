package dev.lockstep.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A scenario's clients of one library, each with connections of its own (application instances
 * in miniature), closed together.
 * @param <C> the kind of client
 */
final class Clients<C extends LibraryClient> implements AutoCloseable {

	private final List<C> clients = new ArrayList<>();

	private Clients() {
	}

	/** Opens {@code count} clients with {@code connect}; those opened are closed again if one cannot be. */
	static <C extends LibraryClient> Clients<C> open(int count, Supplier<C> connect) {
		Clients<C> clients = new Clients<>();
		try {
			for (int i = 0; i < count; i++) {
				clients.clients.add(connect.get());
			}
		}
		catch (RuntimeException ex) {
			clients.close();
			throw ex;
		}
		return clients;
	}

	/** Client {@code index}, from 0. */
	C get(int index) {
		return this.clients.get(index);
	}

	/** The client of thread {@code thread} when threads share the clients: thread {@code t} has client {@code t % size}. */
	C ofThread(int thread) {
		return this.clients.get(thread % this.clients.size());
	}

	@Override
	public void close() {
		this.clients.forEach(LibraryClient::close);
	}

}
