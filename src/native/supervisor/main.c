/* asb-supervisor: the trusted PID 1 inside a native sandbox. (skeleton) */
int main(void)
{
    return 125;
}
