/* TODO(helper): quant */
#include "internal.h"
