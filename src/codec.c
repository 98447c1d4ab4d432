/* TODO(helper): codec */
#include "internal.h"
