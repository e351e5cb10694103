package dev.lockstep.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A small service that runs as several instances on one Redis and one database, and shows what
 * Lockstep does for the situations of the field reports: user initialisation from retried
 * messages, grouped imports, and a periodic push job.
 */
@SpringBootApplication
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

}
