/* A picolibc program for the hart's semihosting tests: prints, reads the file named by its
 * next-to-last argument, writes the byte sum of it into the file named by its last, and exits
 * with 3 when it was not given two. (Debian's picolibc 1.8 puts "program-name" before the whole
 * semihosting command line, which already starts with the program: the files are counted from
 * the end.) */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    printf("hello from the firmware: %d arguments\n", argc);
    if (argc < 4) {
        return 3;
    }
    FILE* in = fopen(argv[argc - 2], "rb");
    if (in == NULL) {
        printf("cannot open %s\n", argv[argc - 2]);
        return 4;
    }
    unsigned long sum = 0, n = 0;
    for (int c; (c = fgetc(in)) != EOF; ++n) {
        sum += (unsigned long)c;
    }
    fclose(in);
    FILE* out = fopen(argv[argc - 1], "w");
    fprintf(out, "%lu bytes, sum %lu\n", n, sum);
    fclose(out);
    printf("read %lu bytes; %.3f per byte\n", n, n ? (double)sum / (double)n : 0.0);
    return 0;
}
